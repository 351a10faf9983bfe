"""The working-dir layout as the memory package names it: `WorkingDir` is `Locations`.

`remecli.config.locations.Locations` is the one owner of every path; this module keeps the
memory package's name for it.
"""

from __future__ import annotations

from remecli.config.locations import MEMORY_MD_HEADER, Locations

WorkingDir = Locations

__all__ = ["MEMORY_MD_HEADER", "WorkingDir"]
