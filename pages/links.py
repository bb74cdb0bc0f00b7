import streamlit as st

st.info("Links is being built")
