"""The one file service (read with paging, write, edit, list, is-memory-file), typed results."""

from remecli.notes.file_service.editing import EditFailed, FileEdited
from remecli.notes.file_service.paging import Page, page_lines
from remecli.notes.file_service.reading import FileRead
from remecli.notes.file_service.service import FileService, FileWritten

__all__ = [
    "EditFailed",
    "FileEdited",
    "FileRead",
    "FileService",
    "FileWritten",
    "Page",
    "page_lines",
]
