// Keeps tracesql_app non-empty before src/shell and src/cli exist.
namespace tracesql { int kAppPlaceholder = 0; }
