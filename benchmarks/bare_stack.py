"""A second start-up reference: the bare panes after importing the libraries XWorkmate is built on.

SQLAlchemy (with its ORM) and pydantic are part of the product's stack (SPEC §1); what this
script costs over ``bare_panes.py`` is what any start-up on that stack pays before doing
anything of its own, so ``smoke test / bare_stack`` shows what is left to win in our code.
"""

from __future__ import annotations

import time

STARTED = time.time()  # python is up (issue 34, item 4)

import sys  # noqa: E402

import pydantic  # noqa: E402
import sqlalchemy  # noqa: E402
import sqlalchemy.orm  # noqa: E402


class _Probe(pydantic.BaseModel):
    """One model: pydantic loads most of itself on the first class, not on import."""

    value: int


def main() -> int:
    assert sqlalchemy.orm.Session is not None and _Probe(value=1).value == 1
    stack_imported = time.time()
    from bare_panes import main as panes
    from startup_marks import note

    note("stack_imported", stack_imported)
    return panes(STARTED)


if __name__ == "__main__":
    sys.exit(main())
