// The one translation unit that compiles Boost.JSON (header-only mode), so the same build works
// where only Boost headers are installed.
#include <boost/json/src.hpp>
