"""The summarizer: a small agent that saves a conversation into its topic card (summarizer), its file
tools confined by a scope (tools, scope), its prompts (card_prompts), and the code that keeps what a
small model wrote as its answer (answer) and puts in what it left out (coverage).
"""
