"""Deferred imports (`remecli.llm.deferred_imports`): the packages the agent runtime imports but
an answer does not use are in `sys.modules` without having run, and work at their first use.

Each case runs in a fresh interpreter: in this one, other tests have imported them already."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _python(code: str, cwd: Path | None = None) -> str:
    """Run `code` in a fresh interpreter on this checkout; its stdout (asserts fail it)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(cwd or ROOT), str(ROOT)])}
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=cwd or ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_the_runtime_imports_them_without_running_them_and_they_run_at_first_use() -> None:
    _python(
        """
        import sys
        import remecli.__main__  # the program installs the finder
        import agentscope.agent, agentscope.tool, agentscope.permission
        from remecli.llm.deferred_imports import has_run

        for name in ("numpy", "requests"):  # agentscope imports both at its top level
            assert name in sys.modules and not has_run(name), name
        import numpy  # said again: still not run (LazyLoader ran it here on Python 3.11)
        import numpy as np2
        assert not has_run("numpy") and np2 is numpy
        assert numpy.__name__ == "numpy" and not has_run("numpy")
        assert int(numpy.arange(5).sum()) == 10 and has_run("numpy")
        import numpy.linalg  # a submodule of a package that has run
        assert float(numpy.linalg.norm([3.0, 4.0])) == 5.0
        from requests import Session  # `from x import y` runs it
        assert has_run("requests") and Session.__name__ == "Session"
        """
    )


def test_threads_that_first_use_it_at_once_all_see_it_whole() -> None:
    out = _python(
        """
        import threading
        import remecli.__main__  # installs the finder
        import numpy

        results, start = [], threading.Barrier(8)

        def use():
            start.wait()
            results.append(int(numpy.ones(3, dtype=numpy.int64).sum()))

        threads = [threading.Thread(target=use) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        print(results)
        """
    )
    assert out.strip() == str([3] * 8)


def test_failures_attributes_set_early_and_a_module_class_of_its_own(tmp_path: Path) -> None:
    (tmp_path / "fails_late").mkdir()
    (tmp_path / "fails_late" / "__init__.py").write_text("VALUE = 1\nraise RuntimeError('boom')\n")
    (tmp_path / "runs_once.py").write_text("COUNT = 1\nVALUE = 'mine'\n")
    (tmp_path / "own_class.py").write_text(  # as trio does, for its deprecated names
        "import sys, types\nclass Own(types.ModuleType): pass\nsys.modules[__name__].__class__ = Own\n"
    )
    _python(
        """
        import sys
        from remecli.llm.deferred_imports import DeferringFinder, has_run

        sys.meta_path.insert(0, DeferringFinder(frozenset({"fails_late", "runs_once", "own_class"})))
        import fails_late  # nothing runs yet
        try:
            fails_late.VALUE
        except RuntimeError as error:
            assert str(error) == "boom"
        else:
            raise AssertionError("the failure was hidden")
        assert "fails_late" not in sys.modules

        import runs_once
        runs_once.VALUE = "set before its first use"  # kept when its code runs
        assert not has_run("runs_once")
        assert runs_once.COUNT == 1 and runs_once.VALUE == "set before its first use"

        import own_class
        assert own_class.Own and type(own_class).__name__ == "Own"  # the class it set is kept
        """,
        cwd=tmp_path,
    )


def test_remecli_imported_as_a_library_changes_no_import() -> None:
    _python(
        """
        import sys
        import agentscope.agent
        from remecli.llm.deferred_imports import DeferringFinder, has_run

        assert not any(isinstance(finder, DeferringFinder) for finder in sys.meta_path)
        assert has_run("numpy")  # agentscope's own import ran it, as without remecli
        """
    )
