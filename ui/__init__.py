"""Streamlit-side helpers shared by every page: session state (ui.state) and the page view (ui.page_view)."""


def _use_navigation_only() -> None:
    """Make sure app.py's `st.navigation` runs every page, even on a server's very first run.

    Streamlit still supports the old "pages/ directory" apps: until some script calls
    `st.navigation`, a server whose main script sits next to a `pages/` folder runs the requested
    page file on its own. So the first request after a start that asks for /documents (a bookmark, a
    reloaded tab) would get that page without app.py's sidebar and first-visit work. Every page
    imports this package, so the first run that does (whichever script it is) switches the
    old mode off and restarts the run, which then goes through app.py. Later runs never see it.
    """
    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    was_pages_directory = bool(PagesManager.uses_pages_directory)
    PagesManager.uses_pages_directory = False
    if was_pages_directory and get_script_run_ctx() is not None:
        import streamlit as st

        st.rerun()


_use_navigation_only()
