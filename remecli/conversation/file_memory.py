"""The seed's import path of `FileMemory`, kept for library users: it is the facade in
`remecli.runtime.file_memory` (see there). New code imports it from `remecli.runtime`."""

from remecli.runtime.file_memory import FileMemory

__all__ = ["FileMemory"]
