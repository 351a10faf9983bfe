"""`MEMORY.md` kept by code: the digest's generated block (block), consolidation within its
prompt budget (budget), and the user's explicit "please remember …" (remember).
"""
