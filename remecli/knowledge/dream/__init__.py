"""Auto Dream: consolidates new and changed topic cards into the digest.

`digest/{personal,procedure,wiki}/<slug>.md` nodes are created, corroborated, refined or
corrected one unit at a time by a confined agent; the code verifies each write and maintains
the provenance frontmatter. Entry points: `remecli.knowledge.dream.runner.dream` (async),
`remecli.knowledge.dream.runner.dream_due`, `remecli.knowledge.dream.interests.render_interests`
and the `remecli dream` command (`remecli.surfaces.cli.dream`).
"""
