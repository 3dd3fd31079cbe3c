"""Suites in the fake server's language, for tests, benchmarks and demos.

:class:`~tooleval_nb.testing.FakeOpenAIServer` answers a prompt ``<tool> <key> <value>`` with that
call, so :func:`weather_suite` is a suite whose every case the fake server answers right: faults
planted on top of it (a handler, a schedule, ``marks``) are then the only source of wrong answers.
"""

from __future__ import annotations

from ..suite import EvalCase, Suite, Tool

__all__ = ["WEATHER", "weather_suite"]

#: ``get_weather(city)``: the tool of :func:`weather_suite`
WEATHER = Tool.create(
    "get_weather", "Current weather for a city", {"city": {"type": "string"}}, required=["city"]
)


def weather_suite(
    n: int,
    marks: dict[int, str] | None = None,
    name: str = "weather",
    *,
    tools: list[Tool] | None = None,
    categories: tuple[str, ...] | None = None,
) -> Suite:
    """A suite of ``n`` cases ``get_weather city Town{i}`` expecting ``get_weather(city="Town{i}")``.

    Args:
        n: how many cases; their ids are ``c000``, ``c001``, ...
        marks: ``marks[i]`` is appended to case ``i``'s prompt (a word a fake server's handler
            can react to).
        name: the suite's name.
        tools: the suite's tools (default: ``[WEATHER]``).
        categories: dealt to the cases round-robin (default: none).

    Returns:
        The suite; its cases are tagged ``even`` or ``odd`` by index.
    """
    marks = marks or {}
    return Suite(
        name=name,
        tools=tools or [WEATHER],
        cases=[
            EvalCase(
                id=f"c{i:03d}",
                prompt=f"get_weather city Town{i} {marks.get(i, '')}".strip(),
                expected_tool="get_weather",
                expected_params={"city": f"Town{i}"},
                tags=["even" if i % 2 == 0 else "odd"],
                category=categories[i % len(categories)] if categories else None,
            )
            for i in range(n)
        ],
    )
