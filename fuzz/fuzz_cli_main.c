/* cli/comply.c with its main renamed comply_main, so that the command-line target
 * (fuzz_targets_cli.c) can call the command's own entry point in-process. */
int comply_main(int argc, char** argv);
#define main comply_main
#include "../cli/comply.c"
