"""The model seam: chat models, the agent runtime (agentscope) and what they are built from.

Every import of agentscope in remecli is in this package. The program (`remecli.__main__`)
defers the packages the runtime imports but an answer does not use before it imports anything
else (`remecli.llm.deferred_imports`); importing remecli as a library changes no import."""
