#include "transports/contract/method_names.hpp"

#include <fmt/format.h>

#include "algorithms/types.hpp"

namespace cb {

std::string_view to_string(WaitPolicy w) {
  switch (w) {
    case WaitPolicy::automatic:
      return "auto";
    case WaitPolicy::spin:
      return "spin";
    case WaitPolicy::yield:
      return "yield";
    case WaitPolicy::sleep:
      return "sleep";
  }
  return "auto";
}

WaitPolicy parse_wait_policy(std::string_view name) {
  for (WaitPolicy w :
       {WaitPolicy::spin, WaitPolicy::yield, WaitPolicy::sleep, WaitPolicy::automatic})
    if (to_string(w) == name) return w;
  throw UsageError(fmt::format("unknown --wait '{}' (valid: spin, yield, sleep, auto)", name));
}

std::string_view to_string(StartMethod s) {
  switch (s) {
    case StartMethod::window: return "window";
    case StartMethod::back_to_back: return "back-to-back";
    case StartMethod::barrier: break;
  }
  return "barrier";
}

StartMethod parse_start_method(std::string_view name) {
  for (StartMethod s : {StartMethod::barrier, StartMethod::window, StartMethod::back_to_back})
    if (to_string(s) == name) return s;
  throw UsageError(
      fmt::format("unknown --start '{}' (valid: barrier, window, back-to-back)", name));
}

}  // namespace cb
