/* tp_phases: two phases one after the other, for the replay tests: phase_one() burns ~0.8 s of
 * CPU, then phase_two() burns ~0.8 s. A time range at the start of a recording holds only the
 * first, one at the end only the second. */
#include <stdio.h>

#include "tp_burn.h"

TP_DEFINE_BURN(phase_one)
TP_DEFINE_BURN(phase_two)

int main(void)
{
    phase_one(800);
    printf("tp_phases: phase one done\n");
    fflush(stdout);
    phase_two(800);
    printf("tp_phases: phase two done\n");
    return 0;
}
