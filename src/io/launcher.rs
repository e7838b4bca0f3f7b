//! Launcher mapping files (plain, bgp, mpich, rankfile): under construction.
