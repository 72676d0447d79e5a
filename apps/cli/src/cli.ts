import { main } from "./main";

// The entry point of the bundled package (dist/benchboard.js).
process.exitCode = await main(process.argv.slice(2));
