import streamlit as st

st.info("Evaluate is being built")
