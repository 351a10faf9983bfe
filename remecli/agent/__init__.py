"""The agent: the ReAct loop over agentscope, the Assistant facade front-ends drive, and the
one stream of core events they render."""
