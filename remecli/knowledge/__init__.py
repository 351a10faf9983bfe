"""Knowledge made from conversations, in the background: topic cards and day pages (the
summarizer and its tools), `MEMORY.md`'s managed block, Auto Dream's digest and interests, and
Auto Resource (files under `resource/` become source-linked cards).
"""
