"""The codes of the table the browser tests run against (a module of its own: test files import it,
and a module called `conftest` is not unique once several test folders have one)."""

TABLE_CODE = "JADE42"
HOST_CODE = "HOSTJADE77"
