//! findNearest (Bhatele & Kale §III): under construction.
