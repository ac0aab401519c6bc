"""Collect text edits and references for one build file, then apply them in one pass."""

from __future__ import annotations

import bisect
from collections.abc import Sequence

from rocport._diagnostics import line_starts, offset_to_line_col
from rocport.port.build.flags import Rewrite, Word
from rocport.port.model import Outcome, Reference, Translation


class Editor:
    """Non-overlapping replacements of ``text[start:end]`` plus the references they come from."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._starts = line_starts(text)
        self._edits: list[tuple[int, int, str]] = []
        self._spans: list[tuple[int, int]] = []
        self.references: list[Reference] = []

    def replace(self, start: int, end: int, new: str) -> bool:
        """Queue a replacement; False (and nothing queued) when it overlaps an earlier one."""
        # the spans are disjoint and sorted: only the neighbours of the insertion point can overlap
        i = bisect.bisect_left(self._spans, (start, end))
        for s, e in self._spans[max(i - 1, 0) : i + 1]:
            if (
                start < e
                and s < end
                or (start == end and s < start < e)
                or (s == e and start < s < end)
            ):
                return False
        self._spans.insert(i, (start, end))
        if self.text[start:end] != new:
            self._edits.append((start, end, new))
        return True

    def claim(self, start: int, end: int) -> bool:
        """Reserve a span without changing it (so that no later rule reports or edits it again)."""
        return self.replace(start, end, self.text[start:end])

    def insert(self, offset: int, new: str) -> bool:
        return self.replace(offset, offset, new)

    def refer(
        self,
        offset: int,
        name: str,
        outcome: Outcome,
        family: str,
        hip: str | None = None,
        note: str | None = None,
    ) -> None:
        line, column = offset_to_line_col(self._starts, offset)
        self.references.append(Reference(name, line, column, outcome, family, hip, note))

    def apply_rewrites(
        self, words: Sequence[Word], rewrites: Sequence[Rewrite], *, joiner: str = " "
    ) -> None:
        """Splice flag rewrites over their words; a dropped option takes its leading space along."""
        for rw in rewrites:
            start, end = words[rw.first].start, words[rw.last - 1].end
            hip = joiner.join(rw.tokens) if rw.outcome is Outcome.TRANSLATED else None
            self.refer(start, rw.name, rw.outcome, rw.family, hip, rw.note)
            if rw.outcome is not Outcome.TRANSLATED:
                continue
            if not rw.tokens:
                if start > 0 and self.text[start - 1] == ";":
                    start -= 1
                elif self.text[end : end + 1] == ";":
                    end += 1
                while start > 0 and self.text[start - 1] in " \t":
                    start -= 1
            self.replace(start, end, joiner.join(rw.tokens))

    def line_start(self, offset: int) -> int:
        return self.text.rfind("\n", 0, offset) + 1

    def indent_at(self, offset: int) -> str:
        begin = self.line_start(offset)
        line = self.text[begin:offset]
        return line[: len(line) - len(line.lstrip(" \t"))]

    def result(self) -> Translation:
        out: list[str] = []
        pos = 0
        for start, end, new in sorted(self._edits, key=lambda e: (e[0], e[1])):
            if start < pos:
                raise AssertionError(f"overlapping edits at offset {start}")
            out.append(self.text[pos:start])
            out.append(new)
            pos = end
        out.append(self.text[pos:])
        text = "".join(out)
        refs = sorted(self.references, key=lambda r: (r.line, r.column))
        return Translation(text, refs, _inserted_lines(self.text, text, self._edits))


def _inserted_lines(before: str, after: str, edits: list[tuple[int, int, str]]) -> list[int]:
    """1-based output lines made only of inserted text (whole new lines)."""
    lines: list[int] = []
    delta = 0
    for start, end, new in sorted(edits, key=lambda e: (e[0], e[1])):
        if start == end and "\n" in new:
            line = after.count("\n", 0, start + delta) + 1  # output line where the insertion begins
            count = new.count("\n")
            at_line_start = start == 0 or before[start - 1] == "\n"
            if new.endswith("\n") and at_line_start:
                lines.extend(range(line, line + count))
            elif new.startswith("\n") and (start == len(before) or before[start] == "\n"):
                lines.extend(range(line + 1, line + 1 + count))
        delta += len(new) - (end - start)
    return lines
