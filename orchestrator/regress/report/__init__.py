"""The regression report document and its writers (Markdown, HTML, JUnit), merge and plots."""
