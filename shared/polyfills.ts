// Promise.withResolvers arrived in Node 22; aws-local-stepfunctions relies on it.
type WithResolvers = <T>() => { promise: Promise<T>; resolve: (v: T | PromiseLike<T>) => void; reject: (e?: unknown) => void };
const P = Promise as unknown as { withResolvers?: WithResolvers };
if (!P.withResolvers) {
  P.withResolvers = function <T>() {
    let resolve!: (v: T | PromiseLike<T>) => void;
    let reject!: (e?: unknown) => void;
    const promise = new Promise<T>((a, b) => {
      resolve = a;
      reject = b;
    });
    return { promise, resolve, reject };
  };
}
export {};
