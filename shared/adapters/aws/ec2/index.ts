export { Ec2CloudProvider } from './cloud-provider';
export { aliasParameter, resolveAmis } from './amis';
export { NodeClassResolver } from './node-class-resolver';
export { clientTokenFor } from './fleet';
export { al2023UserData, al2UserData, bottlerocketUserData } from './user-data';
export { ProviderIdInvalidError } from './instances';
