"""Summaries in the background, never blocking the chat: the tasks (tasks), their records on
disk (records), the ones waiting out a full disk (waits), the callbacks of their outcomes
(callbacks), and the one backoff policy of background model jobs (backoff; Auto Dream's too).
"""
