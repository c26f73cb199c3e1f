/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */
/* placeholder: the packetdrill shim (being written) */
void packetdrill_interface_init(const char *flags, void *ifc);
void
packetdrill_interface_init(const char *flags, void *ifc)
{
	(void)flags;
	(void)ifc;
}
