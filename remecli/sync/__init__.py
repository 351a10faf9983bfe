"""Sync of the Markdown memory between machines, with git as the engine.

`remecli sync init REMOTE` makes `<working_dir>/.sync/git` (a git dir whose work tree is the
working dir) and `remecli sync` commits what changed here, fetches, merges with drivers that
understand notes (`textmerge`, run by git through `merge_driver`), writes the merged files into
the working dir under the memory writer's locks (`apply`) and pushes (`engine`). What travels is
a whitelist (`repo.EXCLUDE`): the index, logs, tokens, locks, pending work, caches and the
per-machine `.history` stay here.
"""
