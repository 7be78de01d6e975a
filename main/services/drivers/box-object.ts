// Which of a box's objects a workspace server stands for, the same way in every command-driven
// dialect: the same name; else the name lbdesk gave it on import (legalName) at the same address;
// else the same address.
import { sameAddress } from '../../../shared/model/address';
import { legalName } from '../import/names';

export function boxObjectFor<T>(objects: readonly T[], server: { name: string; address: string }, name: (o: T) => string, address: (o: T) => string): T | undefined {
  return objects.find((o) => name(o) === server.name)
    ?? objects.find((o) => legalName(name(o)) === server.name && sameAddress(address(o), server.address))
    ?? objects.find((o) => sameAddress(address(o), server.address));
}
