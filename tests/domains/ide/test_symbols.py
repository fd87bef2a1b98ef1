"""The AST index behind find_symbol: what counts as a definition and a reference, and its cache."""

from __future__ import annotations

from saas_sim.domains.ide.symbols import index_source, module_index
from saas_sim.domains.ide.workspace import blob_sha

SOURCE = '''\
import os.path as osp
from acme.utils import money

LIMIT: int = 3


@decorate
class Plan(Base, metaclass=Meta):
    tier = "gold"

    async def price(self, amount, *rest, scale=1.0, **opts):
        local = amount * scale
        return money.round_cents(local, mode=opts)


def helper():
    return Plan().price(LIMIT)
'''


def _defs(text: str) -> list[tuple[str, str, str, int, int]]:
    return [(d.name, d.kind, d.qualname, d.line, d.column) for d in index_source(text).definitions]


def test_definitions_have_kinds_dotted_names_and_name_columns() -> None:
    got = _defs(SOURCE)
    assert ("osp", "import", "osp", 1, 7) in got
    assert ("money", "import", "money", 2, 23) in got
    assert ("LIMIT", "variable", "LIMIT", 4, 0) in got
    assert ("Plan", "class", "Plan", 8, 6) in got
    assert ("tier", "variable", "Plan.tier", 9, 4) in got
    assert ("price", "method", "Plan.price", 11, 14) in got
    assert {("amount", "parameter"), ("rest", "parameter"), ("scale", "parameter"), ("opts", "parameter")} <= {
        (n, k) for n, k, *_ in got}
    assert ("helper", "function", "helper", 16, 4) in got
    assert not [d for d in got if d[0] == "local"]  # a function's locals are not indexed


def test_references_cover_names_attributes_imports_and_keywords() -> None:
    refs = {(r.name, r.kind, r.line) for r in index_source(SOURCE).references}
    assert {("decorate", "name", 7), ("Base", "name", 8), ("Meta", "name", 8), ("round_cents", "attribute", 13),
            ("mode", "keyword", 13), ("path", "import", 1), ("utils", "import", 2), ("Plan", "name", 17),
            ("price", "attribute", 17), ("LIMIT", "name", 17)} <= refs


def test_an_attribute_reference_points_at_the_attribute_name() -> None:
    ref = next(r for r in index_source("x = obj.attr\n").references if r.name == "attr")
    assert (ref.line, ref.column) == (1, 8)


def test_text_that_does_not_parse_gives_an_empty_unparsed_index() -> None:
    index = index_source("def (:\n")
    assert not index.parsed
    assert index.definitions == ()


def test_the_index_is_cached_by_blob_and_equals_a_fresh_one() -> None:
    text = "def f():\n    return g()\n"
    first = module_index(blob_sha(text), text)
    assert module_index(blob_sha(text), text) is first
    assert first == index_source(text)
