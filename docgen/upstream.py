"""Where each op page's text comes from: the section of XLA's operation-semantics page it paraphrases.

The seed (``/work/shared/seeds/``, a translated copy of https://openxla.org/xla/operation_semantics) heads each
op's section with a heading followed by a "see also ``XlaBuilder::Op``" line (``HloInstruction::CreateOp`` for
HLO-only ops). The site (Google's devsite) names a section's anchor after its English heading: lower case, every
run of other characters than ``a-z0-9`` one ``_``, none at either end (``ConcatInDim (Concatenate)`` ->
``concatindim_concatenate``). The translation keeps op names in Latin letters but translates some headings, so a
section's English heading is its Latin heading, or for a translated one the op it documents.

``SECTIONS`` (op -> English heading) is what the pages use, so the build needs no seed;
``python -m docgen.upstream --seed FILE`` derives it from the seed, and ``tests/test_pages.py`` checks that every
op's heading is one the seed has. Ops the page does not document are in ``NOT_UPSTREAM``.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

URL = "https://openxla.org/xla/operation_semantics"
SEED = Path("/work/shared/seeds/003_7bc2d0983cd7f91d.txt")

#: The English words of the parentheses the translation translated (``ConcatInDim (دمج)``): Arabic -> English.
PARENTHESES = {"دمج": "Concatenate", "الالتفاف": "convolution", "عكس": "reverse", "صريح": "explicit"}
#: Sections whose "see also" names another symbol than the op: symbol -> op (``XlaBuilder::ConstantLiteral``).
SYMBOLS = {"ConstantLiteral": "Constant", "BuildPartitionId": "PartitionId", "CopyStart": "Copy"}

_SEE_ALSO = re.compile(r"(?:XlaBuilder::|HloInstruction::Create)([A-Za-z0-9]+)")
_OP_NAME = re.compile(r"^[A-Z][A-Za-z0-9]*$")
_SIGNATURE = re.compile(r"^([A-Z][A-Za-z0-9]*)\(")


@dataclasses.dataclass(frozen=True)
class Section:
    heading: str  # as the seed writes it (translated or not)
    english: str  # the heading of the English page
    symbols: tuple[str, ...]  # what its "see also" line names
    body: str  # its text up to the next heading


def anchor(heading: str) -> str:
    """The devsite anchor of an English heading."""
    return re.sub(r"[^a-z0-9]+", "_", heading.lower()).strip("_")


def link(op: str) -> str | None:
    """The URL of the section of the upstream page that ``op``'s page paraphrases (None for NOT_UPSTREAM ops)."""
    heading = SECTIONS.get(op)
    return None if heading is None else f"{URL}#{anchor(heading)}"


def _english(heading: str, symbols: Sequence[str]) -> str:
    latin = re.match(r"[A-Za-z][A-Za-z0-9]*", heading)
    name = latin.group(0) if latin else SYMBOLS.get(symbols[0], symbols[0]) if symbols else heading
    words = re.search(r"\(([^)]*)\)", heading)
    if words and words.group(1).strip() in PARENTHESES:
        return f"{name} ({PARENTHESES[words.group(1).strip()]})"
    return heading if latin and heading.isascii() else name


def _documented(op: str, lines: Sequence[str], starts: dict[int, tuple[str, ...]]) -> bool:
    return any(op == lines[k] or op in symbols or op in (SYMBOLS.get(x) for x in symbols)
               for k, symbols in starts.items())


def _short(line: str) -> bool:
    return len(line.split()) <= 4


def sections(text: str) -> list[Section]:
    """The op sections of the seed. A heading is a short line followed by the "see also" line (or by one line
    naming the op's form, then "see also"), or a line that is an op's name alone; a "see also" line after a long
    one names the HLO parts of the section it is in, and one under a heading that is the op's name alone
    (Gather, then a translated "General semantics") belongs to that heading."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    starts: dict[int, tuple[str, ...]] = {}
    for i, line in enumerate(lines):
        found = tuple(_SEE_ALSO.findall(line)) if ("XlaBuilder::" in line or "HloInstruction::" in line) else ()
        if found and i > 0:
            head = i - 1 if _short(lines[i - 1]) else i - 2 if i > 1 and _short(lines[i - 2]) else None
            previous = max((k for k in starts if head is not None and k < head), default=None)
            if previous is not None and not starts[previous] and lines[previous] in found:
                starts[previous] = found
            elif head is not None:
                starts[head] = found
        elif _OP_NAME.match(line) and i not in starts:
            starts[i] = ()
        elif (signature := _SIGNATURE.match(line)) and not _documented(signature.group(1), lines, starts):
            head = next((k for k in range(i - 1, max(i - 4, 0), -1)
                         if len(lines[k].split()) <= 2 and not re.search(r"[\d{}\[\]()=,;.:]", lines[k])), None)
            if head is not None and head not in starts:
                starts[head] = (signature.group(1),)  # a section with no "see also" (Transpose)
    order = sorted(starts)
    found_sections = []
    for k, start in enumerate(order):
        end = order[k + 1] if k + 1 < len(order) else len(lines)
        symbols = starts[start]
        found_sections.append(Section(lines[start], _english(lines[start], symbols), symbols,
                                      "\n".join(lines[start + 1:end])))
    return found_sections


def derive(ops: Iterable[str], text: str) -> tuple[dict[str, str], list[str]]:
    """(op -> English heading, ops the page does not document): an op's own section (its heading, or its "see
    also"; a comparison's total-order form is in the comparison's), else a section of an op its name starts with
    that names it (AllGatherStart in AllGather's)."""
    found = sections(text)
    mapping, missing = {}, []
    for op in ops:
        own = [s for s in found if s.english == op] or [s for s in found if op in s.symbols
                                                         or SYMBOLS.get(s.symbols[0] if s.symbols else "") == op]
        if op.endswith("TotalOrder"):  # EqTotalOrder in Eq's section
            own = [s for s in found if s.english == op.removesuffix("TotalOrder")]
        part = [s for s in found if s.symbols and op.startswith(s.english)  # AllGatherStart in AllGather's
                and re.search(rf"(?<![A-Za-z0-9]){re.escape(op)}(?![A-Za-z0-9])", s.body)]
        chosen = (own or part or [None])[0]
        if chosen is None:
            missing.append(op)
        else:
            mapping[op] = chosen.english
    return mapping, missing


def python_source(mapping: dict[str, str], missing: Sequence[str]) -> str:
    """``SECTIONS`` and ``NOT_UPSTREAM`` as this module writes them."""
    lines = ["SECTIONS: dict[str, str] = {"]
    lines += [f"    {op!r}: {heading!r}," for op, heading in sorted(mapping.items())]
    lines += ["}", "NOT_UPSTREAM: frozenset[str] = frozenset({"]
    lines += [f"    {op!r}," for op in sorted(missing)]
    lines += ["})"]
    return "\n".join(lines) + "\n"


# -- generated by python -m docgen.upstream --seed FILE --write (do not edit by hand) --
SECTIONS: dict[str, str] = {
    'Abs': 'Abs',
    'Add': 'Add',
    'AddDependency': 'AddDependency',
    'AfterAll': 'AfterAll',
    'AllGather': 'AllGather',
    'AllGatherDone': 'AllGather',
    'AllGatherStart': 'AllGather',
    'AllReduce': 'AllReduce',
    'AllReduceDone': 'AllReduce',
    'AllReduceStart': 'AllReduce',
    'AllToAll': 'AllToAll',
    'And': 'And',
    'AsyncDone': 'AsyncStart',
    'AsyncStart': 'AsyncStart',
    'AsyncUpdate': 'AsyncStart',
    'Atan2': 'Atan2',
    'BatchNormGrad': 'BatchNormGrad',
    'BatchNormInference': 'BatchNormInference',
    'BatchNormTraining': 'BatchNormTraining',
    'Bitcast': 'Bitcast',
    'BitcastConvertType': 'BitcastConvertType',
    'Broadcast': 'Broadcast',
    'BroadcastInDim': 'BroadcastInDim',
    'Call': 'Call',
    'Cbrt': 'Cbrt',
    'Ceil': 'Ceil',
    'Cholesky': 'Cholesky',
    'Clamp': 'Clamp',
    'Clz': 'Clz',
    'Collapse': 'Collapse',
    'CollectiveBroadcast': 'CollectiveBroadcast',
    'CollectivePermute': 'CollectivePermute',
    'CollectivePermuteDone': 'CollectivePermute',
    'CollectivePermuteStart': 'CollectivePermute',
    'Compare': 'Compare',
    'Complex': 'Complex',
    'CompositeCall': 'CompositeCall',
    'ConcatInDim': 'ConcatInDim (Concatenate)',
    'Conditional': 'Conditional',
    'Constant': 'Constant',
    'Conv': 'Conv (convolution)',
    'ConvGeneral': 'ConvGeneral',
    'ConvGeneralDilated': 'ConvGeneralDilated',
    'ConvWithGeneralDimensions': 'ConvWithGeneralDimensions',
    'ConvWithGeneralPadding': 'ConvWithGeneralPadding',
    'ConvertElementType': 'ConvertElementType',
    'Copy': 'Copy',
    'CopyDone': 'Copy',
    'CopyStart': 'Copy',
    'Cos': 'Cos',
    'Cosh': 'Cosh',
    'CrossReplicaSum': 'CrossReplicaSum',
    'CustomCall': 'CustomCall',
    'Div': 'Div',
    'Domain': 'Domain',
    'Dot': 'Dot',
    'DotGeneral': 'DotGeneral',
    'DynamicReshape': 'DynamicReshape',
    'DynamicSlice': 'DynamicSlice',
    'DynamicUpdateSlice': 'DynamicUpdateSlice',
    'Eq': 'Eq',
    'EqTotalOrder': 'Eq',
    'Erf': 'Erf',
    'Exp': 'Exp',
    'Expm1': 'Expm1',
    'Fft': 'Fft',
    'Floor': 'Floor',
    'Fusion': 'Fusion',
    'Gather': 'Gather',
    'Ge': 'Ge',
    'GeTotalOrder': 'Ge',
    'GetDimensionSize': 'GetDimensionSize',
    'GetTupleElement': 'GetTupleElement',
    'Gt': 'Gt',
    'GtTotalOrder': 'Gt',
    'Imag': 'Imag',
    'Infeed': 'Infeed',
    'Iota': 'Iota',
    'IsFinite': 'IsFinite',
    'Le': 'Le',
    'LeTotalOrder': 'Le',
    'Log': 'Log',
    'Log1p': 'Log1p',
    'Logistic': 'Logistic',
    'Lt': 'Lt',
    'LtTotalOrder': 'Lt',
    'Map': 'Map',
    'Max': 'Max',
    'Min': 'Min',
    'Mul': 'Mul',
    'Ne': 'Ne',
    'NeTotalOrder': 'Ne',
    'Neg': 'Neg',
    'Not': 'Not',
    'OptimizationBarrier': 'OptimizationBarrier',
    'Or': 'Or',
    'Outfeed': 'Outfeed',
    'Pad': 'Pad',
    'Parameter': 'Parameter',
    'PartitionId': 'PartitionID',
    'PopulationCount': 'PopulationCount',
    'Pow': 'Pow',
    'RaggedAllToAll': 'RaggedAllToAll',
    'RaggedDot': 'RaggedDot',
    'Real': 'Real',
    'Recv': 'Recv',
    'RecvDone': 'RecvDone',
    'Reduce': 'Reduce',
    'ReducePrecision': 'ReducePrecision',
    'ReduceScatter': 'ReduceScatter',
    'ReduceWindow': 'ReduceWindow',
    'Rem': 'Rem',
    'ReplicaId': 'ReplicaId',
    'Reshape': 'Reshape',
    'Rev': 'Rev (reverse)',
    'RngBitGenerator': 'RngBitGenerator',
    'RngGetAndUpdateState': 'RngGetAndUpdateState',
    'RngNormal': 'RngNormal',
    'RngUniform': 'RngUniform',
    'Round': 'Round',
    'RoundNearestAfz': 'RoundNearestAfz',
    'RoundNearestEven': 'RoundNearestEven',
    'Rsqrt': 'Rsqrt',
    'ScaledDot': 'ScaledDot',
    'Scan': 'Scan',
    'Scatter': 'Scatter',
    'Select': 'Select',
    'SelectAndScatter': 'SelectAndScatter',
    'Send': 'Send',
    'SendDone': 'SendDone',
    'SendToHost': 'Send',
    'SetDimensionSize': 'SetDimensionSize',
    'ShiftLeft': 'ShiftLeft',
    'ShiftRightArithmetic': 'ShiftRightArithmetic',
    'ShiftRightLogical': 'ShiftRightLogical',
    'Sign': 'Sign',
    'Sin': 'Sin',
    'Slice': 'Slice',
    'Sort': 'Sort',
    'Sqrt': 'Sqrt',
    'Sub': 'Sub',
    'Tan': 'Tan',
    'Tanh': 'Tanh',
    'TopK': 'TopK',
    'Transpose': 'Transpose',
    'TriangularSolve': 'TriangularSolve',
    'Tuple': 'Tuple',
    'While': 'While',
    'Xor': 'Xor',
}
NOT_UPSTREAM: frozenset[str] = frozenset({
    'Acos',
    'Acosh',
    'ApproxTopK',
    'ApproxTopKFallback',
    'Asin',
    'Asinh',
    'Atan',
    'Atanh',
    'BesselI0e',
    'BesselI1e',
    'Conj',
    'CreateToken',
    'CustomCallWithAliasing',
    'CustomCallWithComputation',
    'CustomCallWithLayout',
    'Digamma',
    'Eigh',
    'ErfInv',
    'Erfc',
    'Igamma',
    'IgammaGradA',
    'Igammac',
    'InfeedWithToken',
    'LU',
    'Lgamma',
    'MultiCollectivePermute',
    'NextAfter',
    'OutfeedWithToken',
    'ProductOfElementaryHouseholderReflectors',
    'QR',
    'QrDecomposition',
    'RandomGammaGrad',
    'Reciprocal',
    'RecvFromHost',
    'RegularizedIncompleteBeta',
    'RemoveDynamicDimension',
    'SVD',
    'Sinh',
    'SliceInDim',
    'Square',
    'Zeta',
})
# -- end of generated --


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m docgen.upstream", description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=Path, default=SEED, help=f"the seed's operation-semantics page ({SEED})")
    parser.add_argument("--write", action="store_true", help="rewrite SECTIONS and NOT_UPSTREAM in this module")
    args = parser.parse_args(argv)
    from specs import load_all

    if not args.seed.is_file():
        print(f"error: no seed at {args.seed}", file=sys.stderr)
        return 2
    source = python_source(*derive(sorted(load_all()), args.seed.read_text()))
    if not args.write:
        print(source, end="")
        return 0
    path = Path(__file__)
    text = path.read_text()
    begin = "# -- generated by python -m docgen.upstream --seed FILE --write (do not edit by hand) --\n"
    end = "# -- end of generated --\n"
    head, _, rest = text.partition(begin)
    path.write_text(head + begin + source + end + rest.partition(end)[2])
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
