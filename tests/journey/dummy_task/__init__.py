"""A throwaway benchmark used by ``test_task_interface``: one folder, one registry line."""
