#include "importscope/cli/cli.hpp"

int main(int argc, char** argv)
{
    return importscope::run_cli(argc, argv);
}
