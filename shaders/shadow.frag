#version 330 core
// Depth only; the colour output is unused.
void main() {}
