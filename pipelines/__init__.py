"""Item pipelines of forumcrawl, one concern per module."""
