"""The model seam: chat models, the agent runtime (agentscope) and what they are built from.

Every import of agentscope in remecli is in this package, so this runs first: the packages the
runtime imports but an answer does not use are deferred to their first use from here on
(`remecli.llm.deferred_imports`)."""

from remecli.llm.deferred_imports import install

install()
