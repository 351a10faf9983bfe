"""Knowledge made from conversations, in the background, one subpackage per concept:

- cards/: topic cards and the day pages that index them;
- summary/: the summarizer, which writes a conversation's card (its tools, scope, prompts);
- background/: summaries run in the background, recorded on disk, retried with one backoff;
- memory_md/: `MEMORY.md`'s managed block, its budget, the user's "please remember";
- dream/: Auto Dream (the digest and interests; `dreaming.py` is the runtime's side, kept
  outside so that `-p` never loads dream);
- resources/: Auto Resource (files under `resource/` become source-linked cards);
- imports/: conversations of other agents read from their files.

Beside them: `model_gate.py` (may a background model job start), `write.py` (the writers' way
to the one memory writer) and `session_saves.py` (what one conversation saved, across cards,
digest and MEMORY.md).
"""
