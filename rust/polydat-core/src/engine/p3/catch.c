/* The longjmp catch of polydat's native tier (see catch.rs).
 *
 * polydat_catch owns the setjmp frame: it installs a jump buffer in the
 * caller's thread-local slot (saving the previous one, so catches nest),
 * runs body(ctx), and restores the slot on both ways out. polydat_throw
 * jumps back to the innermost installed buffer. _setjmp/_longjmp are used
 * rather than setjmp/longjmp so that no signal mask is saved or restored
 * (no system call on either path). */

#include <setjmp.h>
#include <stddef.h>

typedef void (*polydat_body)(void *ctx);

int polydat_catch(polydat_body body, void *ctx, void **slot) {
    jmp_buf env;
    void *previous = *slot;
    *slot = (void *)&env;
    if (_setjmp(env) == 0) {
        body(ctx);
        *slot = previous;
        return 0;
    }
    *slot = previous;
    return 1;
}

void polydat_throw(void *env) {
    _longjmp(*(jmp_buf *)env, 1);
}
