/* A preloadable library that intercepts nothing: preloading it costs what
   loading any extra shared object costs (the loader, the address-space
   layout), so preload_control.sh can tell that apart from the collbench
   library's own work on a call it passes to MPI. */
extern "C" int collbench_empty_preload_marker() { return 0; }
