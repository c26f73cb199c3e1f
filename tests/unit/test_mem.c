#include "ut.h"
int main(void){return 0;}
