/* Where fd 2 (stderr) points, shared by the threads of rocsys-top: the display sends it to a file
 * while it is open, the GPU monitor's thread catches what the GPU library says while it starts.
 * Each redirection is pushed and later popped, in any order and from any thread: popping one
 * that others were pushed over leaves fd 2 where the newest points, and fd 2 ends where it began
 * once all are popped. One lock, never held across anything that can block. */
#ifndef ROCSYS_MODEL_STDERR_ROUTE_H
#define ROCSYS_MODEL_STDERR_ROUTE_H

/* Point fd 2 at fd (which stays the caller's). Returns a handle (> 0) for stderr_route_pop,
 * or -1 when it cannot (fd 2 is unchanged then). */
int stderr_route_push(int fd);
/* Undo the redirection of handle. Returns 1 if this call undid it, 0 if it was undone already
 * (or never was): two threads may race to pop the same handle, one of them wins. */
int stderr_route_pop(int handle);

#endif
