import streamlit as st

st.info("Chunks is being built")
