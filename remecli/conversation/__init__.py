"""One conversation's memory runtime: the session, compaction, the transcript, the tool-result
store, persistence and crash recovery, and `FileMemory` (the runtime a front-end or a library
user drives, which starts the background knowledge work of `remecli.knowledge`).

Submodules are imported where they are used (nothing here is imported eagerly, so the UI can
import the small `notices` module without loading the rest).
"""
