"""Persona prompt templates, one Markdown file per persona; shipped as package data and read by graph.core.prompts."""
