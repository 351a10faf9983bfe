"""The provider seam holds: agentscope's chat model and formatter are subclassed, and its private
methods overridden, only in the adapter module; vector memory opens no OpenAI client of its own."""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "remecli"
ADAPTER = "remecli/llm/agentscope_model.py"
CLIENT_NAMES = {"OpenAI", "AsyncOpenAI", "AsyncClient", "Client", "AzureOpenAI", "AsyncAzureOpenAI"}


def _imported_names(tree: ast.AST) -> dict[str, str]:
    """Local name -> dotted path of what it names (`from a.b import C` gives C -> a.b.C)."""
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                local = alias.asname or alias.name.split(".")[0]
                names[local] = alias.name if alias.asname else local
    return names


def _resolve(expr: ast.expr, names: dict[str, str]) -> object | None:
    """The object a base-class expression names, when it comes from an import."""
    parts: list[str] = []
    while isinstance(expr, ast.Attribute):
        parts.insert(0, expr.attr)
        expr = expr.value
    if not isinstance(expr, ast.Name) or expr.id not in names:
        return None
    dotted = ".".join([names[expr.id], *parts])
    module_name, _, attr = dotted.rpartition(".")
    try:
        return getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError):
        try:
            return importlib.import_module(dotted)
        except ImportError:
            return None


def _agentscope_bases(cls: type) -> list[type]:
    return [base for base in inspect.getmro(cls) if base.__module__.split(".")[0] == "agentscope"]


def agentscope_subclasses(source: str) -> list[tuple[ast.ClassDef, list[type]]]:
    """Every class in `source` (nested ones too) with its agentscope ancestors."""
    tree = ast.parse(source)
    names = _imported_names(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            ancestors: list[type] = []
            for base in node.bases:
                resolved = _resolve(base, names)
                if isinstance(resolved, type):
                    ancestors += _agentscope_bases(resolved)
            if ancestors:
                found.append((node, ancestors))
    return found


def private_overrides(source: str) -> list[str]:
    """`Class._method` for each `_`-method a class defines that an agentscope ancestor has."""
    found = []
    for node, ancestors in agentscope_subclasses(source):
        for item in node.body:
            if not isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            name = item.name
            if not name.startswith("_") or (name.startswith("__") and name.endswith("__")):
                continue
            owners = [a.__qualname__ for a in ancestors if name in vars(a)]
            if owners:
                found.append(f"{node.name}.{name} (of {owners[0]})")
    return found


def chat_model_subclasses(source: str) -> list[str]:
    """Classes subclassing agentscope's chat model or formatter base."""
    from agentscope.formatter import FormatterBase
    from agentscope.model import ChatModelBase

    return [
        node.name
        for node, ancestors in agentscope_subclasses(source)
        if any(a in (ChatModelBase, FormatterBase) for a in ancestors)
    ]


def openai_clients(source: str) -> list[str]:
    """Imports of the openai SDK and calls of its client classes."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import) and any(
            a.name.split(".")[0] == "openai" for a in node.names
        ):
            found.append("import openai")
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "openai":
            found.append(f"from {node.module} import …")
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in CLIENT_NAMES:
                found.append(f"{name}(…)")
    return found


def _modules() -> list[tuple[str, str]]:
    return [
        (path.relative_to(ROOT).as_posix(), path.read_text(encoding="utf-8"))
        for path in sorted(PACKAGE.rglob("*.py"))
    ]


def test_only_the_adapter_overrides_agentscope_private_methods() -> None:
    found = [
        f"{rel}: {hit}"
        for rel, source in _modules()
        if rel != ADAPTER
        for hit in private_overrides(source)
    ]
    assert found == []


def test_only_the_adapter_subclasses_the_chat_model_and_formatter() -> None:
    found = {rel: chat_model_subclasses(src) for rel, src in _modules() if rel != ADAPTER}
    assert {rel: hits for rel, hits in found.items() if hits} == {}
    assert chat_model_subclasses((ROOT / ADAPTER).read_text(encoding="utf-8"))


def test_vector_memory_opens_no_openai_client_of_its_own() -> None:
    found = {
        rel: openai_clients(src) for rel, src in _modules() if rel.startswith("remecli/vector/")
    }
    assert {rel: hits for rel, hits in found.items() if hits} == {}


INJECTED = {
    "direct": (
        "from agentscope.tool import FunctionTool\n"
        "class T(FunctionTool):\n"
        "    @staticmethod\n"
        "    def _convert_func_result_to_chunk(result):\n"
        "        return result\n",
        ["T._convert_func_result_to_chunk (of FunctionTool)"],
    ),
    "nested, module attribute": (
        "import agentscope.model\n"
        "def build():\n"
        "    class M(agentscope.model.OpenAIChatModel):\n"
        "        async def _call_api(self, *a, **k):\n"
        "            return None\n"
        "    return M\n",
        ["M._call_api (of OpenAIChatModel)"],
    ),
    "through a remecli subclass": (
        "from remecli.llm.function_tool import CheckedFunctionTool\n"
        "class T(CheckedFunctionTool):\n"
        "    def _convert_func_result_to_chunk(self, result):\n"
        "        return result\n"
        "    def _own_helper(self):\n"
        "        return None\n",
        ["T._convert_func_result_to_chunk (of FunctionTool)"],
    ),
    "own private helpers are fine": (
        "from agentscope.middleware import MiddlewareBase\n"
        "class M(MiddlewareBase):\n"
        "    def _mine(self):\n"
        "        return None\n",
        [],
    ),
}


@pytest.mark.parametrize("case", INJECTED, ids=list(INJECTED))
def test_the_scan_catches_an_injected_override(case: str) -> None:
    source, expected = INJECTED[case]
    assert private_overrides(source) == expected


def test_the_scans_catch_an_injected_client_and_chat_model() -> None:
    client = "from openai import AsyncOpenAI\nclient = AsyncOpenAI(api_key='x')\n"
    assert openai_clients(client) == ["from openai import …", "AsyncOpenAI(…)"]
    assert openai_clients("import openai\nc = openai.OpenAI()\n") == ["import openai", "OpenAI(…)"]
    model = "from agentscope.model import OpenAIChatModel\nclass M(OpenAIChatModel):\n    pass\n"
    assert chat_model_subclasses(model) == ["M"]


def agentscope_imports(source: str) -> list[str]:
    """Imports of agentscope (plain, from-imports and `importlib.import_module` strings)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.split(".")[0] == "agentscope"]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            if (node.module or "").split(".")[0] == "agentscope":
                found.append(node.module or "")
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "import_module":
            arg = node.args[0] if node.args else None
            if isinstance(arg, ast.Constant) and str(arg.value).split(".")[0] == "agentscope":
                found.append(str(arg.value))
    return found


def test_agentscope_is_imported_only_behind_the_llm_package() -> None:
    """No package outside `remecli/llm/` imports agentscope (the adapters there are the seam)."""
    found = {
        rel: agentscope_imports(src)
        for rel, src in _modules()
        if not rel.startswith("remecli/llm/")
    }
    assert {rel: hits for rel, hits in found.items() if hits} == {}


@pytest.mark.parametrize(
    "source",
    [
        "from agentscope.message import Msg\n",
        "def f():\n    import agentscope.tool\n",
        "import importlib\nimportlib.import_module('agentscope._logging')\n",
    ],
)
def test_the_import_scan_catches_agentscope(source: str) -> None:
    assert agentscope_imports(source)
