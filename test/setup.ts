// aws-local-stepfunctions 3.x calls Promise.withResolvers (Node >= 22); polyfill for Node 20.
import '../shared/polyfills';
