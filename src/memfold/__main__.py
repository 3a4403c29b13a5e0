from memfold.cli import main

main()
