import streamlit as st

st.info("Forms is being built")
