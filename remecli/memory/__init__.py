"""Memory of remecli: the session of a conversation, compaction, tool-result offload, transcript,
background summaries and the `FileMemory` library facade (remecli.memory.file_memory).

Submodules are imported where they are used (nothing here is imported eagerly, so the UI can
import the small `notices` module without loading the rest). Nothing here imports Textual.
"""
