"""A table whose row click and a select box choose the same item, kept in step."""
from __future__ import annotations

from typing import Any, Callable, Hashable, Sequence

import pandas as pd
import streamlit as st


def pickable_table(frame: pd.DataFrame, ids: Sequence[Hashable], *, table_key: str, open_key: str,
                   label: str, describe: Callable[[Any], str]) -> Any:
    """Show `frame` (one row per id) and return the id the user opened, or None.

    A click on a row opens it; the select box below does the same for keyboard users and keeps
    the choice when the table reruns. `open_key` is the session key holding the open id.
    """
    ids = list(ids)

    def row_picked() -> None:
        rows = st.session_state[table_key].selection.rows
        if rows:
            st.session_state[open_key] = ids[rows[0]]

    st.dataframe(frame, key=table_key, on_select=row_picked, selection_mode="single-row",
                 hide_index=True, width="stretch")
    if st.session_state.get(open_key) not in ids:
        st.session_state[open_key] = None
    return st.selectbox(label, [None, *ids], key=open_key,
                        format_func=lambda i: "—" if i is None else f"{i} · {describe(i)}")
