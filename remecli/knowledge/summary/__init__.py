"""The summarizer: a small agent that saves a conversation into its topic card (summarizer),
its file tools confined by a scope (tools, scope), its prompt files and their filling
(prompts/), and the code that keeps a card a small model wrote as its answer (answer) and puts
in the new turns it left out (coverage).
"""
