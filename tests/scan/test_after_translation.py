"""The CUDA rules work after translation too: the translated (HIP) fixtures give the same
findings, and the translated negative fixtures stay clean.

The exceptions: RP101, since rocport's translator drops the mask argument of the warp
intrinsics for the default ROCm target (``__shfl_down_sync(m, v, o)`` becomes
``__shfl_down(v, o)``, which always spans the whole wavefront), so the translation itself
removes most of those hazards; and RP112's FP8 types, which the port renames to HIP's OCP
types (the hazard that stays, OCP against FNUZ per target, is the docs' to explain).
"""

from __future__ import annotations

import pytest

from rocport.scan.engine import scan_text
from rocport.scan.registry import Language
from rocport.scan.rules import RULES

from ._helpers import fixture

CUDA_RULES = [rule for rule in RULES if rule.language is Language.CUDA]
TRANSLATION_REMOVES = {"RP101"}
#: rule -> the names whose findings the port's renames remove
TRANSLATION_RENAMES = {"RP112": ("`__nv_fp8",)}


@pytest.fixture(scope="module")
def port():
    from rocport.port.mapping import load_mapping
    from rocport.port.model import PortOptions
    from rocport.port.translator import translate

    mapping = load_mapping()
    return lambda text, name: (
        translate(text, path=name, mapping=mapping, options=PortOptions()).text
    )


def _shape(finding) -> tuple:
    fix = finding.fix
    return finding.severity, fix.applicability if fix else None, len(fix.edits) if fix else 0


@pytest.mark.parametrize("rule", CUDA_RULES, ids=[rule.id for rule in CUDA_RULES])
def test_same_findings_after_translation(rule, port) -> None:
    source = fixture(rule.id, "positive").read_text("utf-8")
    translated = port(source, "positive.cu")
    assert translated != source or "cuda" not in source.lower()
    before = scan_text(source, "positive.cu", Language.CUDA, [rule])
    after = scan_text(translated, "positive.hip", Language.CUDA, [rule])
    if rule.id in TRANSLATION_REMOVES:
        assert 0 < len(after) < len(before)
    elif rule.id in TRANSLATION_RENAMES:
        renamed = [f for f in before if f.message.startswith(TRANSLATION_RENAMES[rule.id])]
        assert renamed and "__nv_fp8" not in translated
        kept = [f for f in before if f not in renamed]
        assert [_shape(f) for f in after] == [_shape(f) for f in kept]
    else:
        # the same hazards, in the same order (names and lines change with the translation)
        assert [_shape(f) for f in after] == [_shape(f) for f in before]
    negative = port(fixture(rule.id, "negative").read_text("utf-8"), "negative.cu")
    assert scan_text(negative, "negative.hip", Language.CUDA, [rule]) == []
