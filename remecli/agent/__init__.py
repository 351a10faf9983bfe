"""The agent: the ReAct loop over agentscope, the Assistant facade (driven by
`remecli.commands.chat_session.ChatSession`), and the core events it streams."""
