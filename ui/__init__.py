"""Streamlit-side helpers shared by every page: session state (ui.state) and the page view (ui.page_view)."""
