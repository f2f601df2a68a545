// The CLI's error output: {"error": {kind, message, location}} on stdout for a constraint, request
// or model error (`ninfer generate`, `ninfer bench decode`, `ninfer model ...`).
#pragma once

#include <exception>

namespace ninfer::cli {

// Prints the error object and returns exit status 2.
int report_request_error(const std::exception& e);

}  // namespace ninfer::cli
