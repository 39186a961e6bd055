"""Towns for the information-flow evaluation that nobody tuned a model on (issue 42): each module
lays out its town, writes its residents and its event, and keeps them in a folder of its name.
Who wrote them and from which briefs: README.md here."""
